"""The ground room: what every other room of ``mmc`` uses, importing nothing of ``mmc`` itself.

- ``mmc.core.configs``: frozen config dataclasses checked from their annotations, built from plain mappings;
- ``mmc.core.seeding``: seeded random streams, derived by name, never shared between workers;
- ``mmc.core.fanout``: jobs and the runners that fan them out;
- ``mmc.core.atomic``: files written whole or not at all;
- ``mmc.core.study_layout``: a study's folder layout and names, which the pipeline writes by and the web app reads by;
- ``mmc.core.plugins``: the one loop that loads an entry-point group of the installed packages.
"""
