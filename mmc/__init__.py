"""meta-minichess: AlphaZero and meta-learning across minichess rule variants."""

__version__ = "0.1.0"
