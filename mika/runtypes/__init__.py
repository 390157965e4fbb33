"""The words every layer uses about a run: what it is asked to do (`spec`: RunSpec,
RunProvenance, Attendance, PriorTurn), what reaches it while it runs (`inbox`: RunInbox),
and what it hands back (`result`: RunResult, OutcomeStatus).

Why a package of its own, below `mika.tool`: the tool context, the approval gate and the
agent loop all speak these types, while `mika.run` (the task center that queues, runs and
records runs) sits above the agent. Kept in `mika.run`, every lower layer would import
upwards. This package imports nothing of Mika, so any layer may use it.
"""
