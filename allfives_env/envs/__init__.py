"""The environments over the rules core: ids and arrays (``spaces``), the settings and their
checks (``settings``), the PettingZoo AEC environment (``aec``, documented in ``allfives_v1``),
the Gymnasium single-agent environment, wrappers, rewards and images. They import the core,
never the agents."""
