"""Playing and watching: a person at the terminal (``human``, ``terminal``) and the printed
demo match (``demo``)."""
