"""`mika eval`: task suites on fresh simulated phones, scored by their checks, with reports."""
