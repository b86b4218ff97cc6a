# The README's Python API example, run as is by tests/api/test_api.py (offline: the procedural
# examiner and renderer, and baseline examinees). In a notebook, run it as a cell; in a
# script, put it under `if __name__ == "__main__":` (images are drawn in worker processes).
from lvlmbench import api

store = "notebook.db"  # a SQLite file (created), a database URL, or an open Store

made = api.generate("spatial understanding", store=store, n=2, m=2, per_aspect=1)
print(f"{made.benchmark}: {made.items} items")

result = api.evaluate(
    made.benchmark, ["baseline/random", "baseline/oracle"], store=store, by=["difficulty"]
)
for row in result.overall:
    low, high = row.interval
    ci = f"95% CI {100 * low:.0f}-{100 * high:.0f}"
    print(f"{row.model}: {100 * row.accuracy:.1f}% ({ci}), n={row.answered}")
for row in result.accuracy:  # one row per model and difficulty
    print(row.model, *row.group, f"{row.correct}/{row.answered}")

for bench in api.ls(store):
    print(bench.name, bench.kind, bench.items, bench.models)

files = api.report("notebook-report/report.html", store=store)
print(f"report: {files.html}")
