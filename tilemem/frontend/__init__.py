"""Text -> IR: the readers of program text and the input checks the pass needs."""
