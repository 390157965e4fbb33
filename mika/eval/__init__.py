"""`mika eval`: task suites on fresh simulated phones, scored by their checks, with reports.

suite.py     which tasks (suites, --tasks, --shard)
policy.py    what plays the model (reference solutions, the lazy policy, a model)
processes.py a task's phone process and headless-run process
runner.py    one task run, N at a time
scoring.py   check AND expected outcome, failure categories
report.py    report.json / .md, merge, compare; report_html.py the static page
"""
