"""Recorded routes and their replay (seed §9 经验回放): a verified run's actions, kept by the
anchors they acted on, done again through the single action entry with Origin.REPLAY."""
