"""Ratings and statistics as pure functions (no I/O, no model calls)."""

from lvlmbench.ratings.agreement import (
    AgreementLevel,
    AgreementReport,
    Verdict,
    cohen_kappa,
    judge_human_agreement,
    kendall_tau,
)
from lvlmbench.ratings.bradley_terry import (
    BootstrapRatings,
    bradley_terry,
    bradley_terry_bootstrap,
)
from lvlmbench.ratings.categories import (
    CategoryTotal,
    Coverage,
    category_mean,
    category_sum,
    coverage,
)
from lvlmbench.ratings.combine import (
    BOTH,
    COMBINE_RULES,
    MAJORITY,
    CombineRule,
    combine_winners,
)
from lvlmbench.ratings.diagnostics import (
    JudgeDiagnostics,
    PositionConsistency,
    Preference,
    TwoOrderVerdict,
    first_position_preference,
    judge_diagnostics,
    length_preference,
    position_consistency,
    self_preference,
)
from lvlmbench.ratings.elo import (
    ELO_SHUFFLES,
    FoughtMatch,
    OnlineElo,
    elo_ratings,
    fought_order,
    online_elo,
)
from lvlmbench.ratings.intervals import Interval, wilson_interval
from lvlmbench.ratings.matches import OUTCOMES, Match, validate_matches
from lvlmbench.ratings.simulate import StyleBattles, simulate_style_battles
from lvlmbench.ratings.style import (
    STYLE_FEATURES,
    StyleCounts,
    StyleRatings,
    style_bradley_terry,
    style_differences,
    style_features,
)
from lvlmbench.ratings.winrate import (
    TieRule,
    WinRate,
    category_win_rates,
    win_rates_vs_reference,
)

__all__ = [
    "BOTH",
    "COMBINE_RULES",
    "ELO_SHUFFLES",
    "MAJORITY",
    "OUTCOMES",
    "STYLE_FEATURES",
    "AgreementLevel",
    "AgreementReport",
    "BootstrapRatings",
    "CategoryTotal",
    "CombineRule",
    "Coverage",
    "FoughtMatch",
    "Interval",
    "JudgeDiagnostics",
    "Match",
    "OnlineElo",
    "PositionConsistency",
    "Preference",
    "StyleBattles",
    "StyleCounts",
    "StyleRatings",
    "TieRule",
    "TwoOrderVerdict",
    "Verdict",
    "WinRate",
    "bradley_terry",
    "bradley_terry_bootstrap",
    "category_mean",
    "category_sum",
    "category_win_rates",
    "cohen_kappa",
    "combine_winners",
    "coverage",
    "elo_ratings",
    "first_position_preference",
    "fought_order",
    "judge_diagnostics",
    "judge_human_agreement",
    "kendall_tau",
    "length_preference",
    "online_elo",
    "position_consistency",
    "self_preference",
    "simulate_style_battles",
    "style_bradley_terry",
    "style_differences",
    "style_features",
    "validate_matches",
    "wilson_interval",
    "win_rates_vs_reference",
]
