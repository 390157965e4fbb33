"""Schedules and conditions (seed §10 定时与条件触发): trigger definitions, their store (the
source of truth), due windows, and the runtime `mika serve` drives."""
