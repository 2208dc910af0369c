"""Browser tests of the explorers: what they draw against attnlib, keyboard and screen
readers, craft on a reader's screen, playback, each live explorer, JupyterLab."""
