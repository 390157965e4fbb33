"""Learned skills (seed §11 个人技能自学): after a run that was answered and verified, a
personal skill is drafted from its goal and tool calls; the user accepts or rejects the
draft; an accepted skill is on trial until a good run makes it active, and is retired
after bad uses. One module per reason: `drafts` (the store), `conditions` (when to
draft), `drafter` (the light-model call), `outcomes` (trial and retirement), `learning`
(the aftercare step that joins them)."""
