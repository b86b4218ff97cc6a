"""Statistics that mean what they say: pure functions over per-item scores, typed results.

The unit is the item: an item's epochs average to one score first (:func:`item_means`), items
weigh equally. Items that share a source form a cluster (:func:`cluster_key`: an AutoBench-V
fine aspect, a VLMEvalKit CircularEval group, an MME picture; VisIT-Bench and TouchStone items
stand alone) and every interval accounts for it:

- a mean gets the analytic cluster-robust interval (:func:`clustered_mean`: CR1 sandwich,
  Student t with G-1 df), or Wilson where every item is its own cluster and scores are 0/1
  (:func:`mean_interval` picks); a statistic that is not a mean gets a cluster bootstrap
  (:func:`cluster_bootstrap`). Every :class:`Estimate` names its method and cluster, with
  n items and n clusters.
- "is A better than B?" is :func:`paired_difference` on the items both answered (the others are
  counted): a paired cluster bootstrap or the paired clustered t (``test="t"``, what
  ``compare`` uses for means), or McNemar where unclustered and binary.
  :func:`paired_bootstrap` does the same for any statistic of resampled pairs (judge scores,
  win rates, Bradley–Terry differences from :mod:`lvlmbench.ratings`).
- many comparisons: :func:`adjust_p_values` (Holm by default, Benjamini–Hochberg); a
  leaderboard's :func:`rank_intervals` with ties where intervals overlap.
- a table of such comparisons (:class:`ComparisonTable`: pairs × groups, adjusted
  together), as ``lvlmbench compare`` builds it and every front door displays it.
- agreement between annotators: :func:`rater_agreement` (Fleiss' κ, or Krippendorff's α where
  items have different numbers of answers) with the items and annotators it is over.
- power: :func:`items_needed` for a paired comparison to see a given difference, from the
  observed per-item differences and their clusters.
- a judge corrected by people: :func:`ppi_mean` (PPI++ or PPI) beside the judge-only and
  human-only figures, with the number of labels; cluster-robust where items cluster.

Every accuracy is an :class:`ItemMean` (items with their clusters) whose ``estimate`` is the
:func:`mean_interval` above; every interval is printed by :func:`format_interval`, named by
:func:`interval_note` and carried in JSON by :func:`estimate_fields`.

Coverage is proven by simulation (tests/stats and bench/bench_stats.py).
"""

from lvlmbench.stats.agreement import (
    FLEISS_KAPPA,
    KRIPPENDORFF_ALPHA,
    RaterAgreement,
    fleiss_kappa,
    krippendorff_alpha,
    rater_agreement,
)
from lvlmbench.stats.clusters import CIRCULAR_STRIDE, ClusterKey, cluster_key, cluster_keys
from lvlmbench.stats.comparisons import ALL, Comparison, ComparisonTable
from lvlmbench.stats.display import (
    estimate_fields,
    format_interval,
    format_ranks,
    interval_note,
    interval_note_of_fields,
)
from lvlmbench.stats.estimate import (
    CLUSTER_BOOTSTRAP,
    CLUSTERED_T,
    WILSON,
    Estimate,
    NotEnoughClusters,
    cluster_bootstrap,
    clustered_mean,
    item_means,
    mean_interval,
)
from lvlmbench.stats.item_mean import NO_ITEMS, ONE_CLUSTER, WILSON_FLOOR, ItemMean
from lvlmbench.stats.multiple import (
    ADJUSTMENTS,
    Adjustment,
    RankInterval,
    adjust_p_values,
    benjamini_hochberg,
    holm,
    rank_intervals,
)
from lvlmbench.stats.paired import (
    MCNEMAR_CHI2,
    MCNEMAR_EXACT,
    PAIRED_BOOTSTRAP,
    PAIRED_CLUSTERED_T,
    McNemar,
    PairedComparison,
    mcnemar,
    paired_bootstrap,
    paired_difference,
)
from lvlmbench.stats.power import PowerPlan, items_needed
from lvlmbench.stats.ppi import PPI, PPI_PLUS_PLUS, PpiResult, ppi_mean

__all__ = [
    "ADJUSTMENTS",
    "ALL",
    "CIRCULAR_STRIDE",
    "CLUSTERED_T",
    "CLUSTER_BOOTSTRAP",
    "FLEISS_KAPPA",
    "KRIPPENDORFF_ALPHA",
    "MCNEMAR_CHI2",
    "MCNEMAR_EXACT",
    "NO_ITEMS",
    "ONE_CLUSTER",
    "PAIRED_BOOTSTRAP",
    "PAIRED_CLUSTERED_T",
    "PPI",
    "PPI_PLUS_PLUS",
    "WILSON",
    "WILSON_FLOOR",
    "Adjustment",
    "ClusterKey",
    "Comparison",
    "ComparisonTable",
    "Estimate",
    "ItemMean",
    "McNemar",
    "NotEnoughClusters",
    "PairedComparison",
    "PowerPlan",
    "PpiResult",
    "RankInterval",
    "RaterAgreement",
    "adjust_p_values",
    "benjamini_hochberg",
    "cluster_bootstrap",
    "cluster_key",
    "cluster_keys",
    "clustered_mean",
    "estimate_fields",
    "fleiss_kappa",
    "format_interval",
    "format_ranks",
    "holm",
    "interval_note",
    "interval_note_of_fields",
    "item_means",
    "items_needed",
    "krippendorff_alpha",
    "mcnemar",
    "mean_interval",
    "paired_bootstrap",
    "paired_difference",
    "ppi_mean",
    "rank_intervals",
    "rater_agreement",
]
