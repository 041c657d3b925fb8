"""The rules core: All Fives as RULES.md states it, in plain Python (standard library only).

Tiles and actions, the rules presets, deals and leaders, the layout and its count, scoring
(count → points, the exact target, hand awards), the value types of a game's events, the
:class:`~allfives_env.core.game.Game` state machine, players' views, game records and text
pictures. Nothing here knows of RL; the environments above translate it.
"""
