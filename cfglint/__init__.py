"""cfglint: lint and fix MMEngine training configs for the hardware they will run on."""

__version__ = "0.1.0"
