"""The check pipeline: discovered paths -> resolved configs -> findings -> violations."""
