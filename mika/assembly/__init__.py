"""The assembly: the one place that knows every capability and builds runs for every face.

`Assembly.open(settings, device=…, model=…)` goes settings -> secrets -> UI language ->
models -> the phone (picked once) -> capabilities -> the run factory -> a TaskCenter.
"""

from mika.assembly.assembly import Assembly, run_options
from mika.assembly.capabilities import capabilities_for
from mika.assembly.environment import RunEnvironment
from mika.assembly.models import SelectedModels, select_models

__all__ = ["Assembly", "RunEnvironment", "SelectedModels", "capabilities_for", "run_options", "select_models"]
