"""One recipe (scene sampler + question writer) per fine aspect of the built-in taxonomy."""

from lvlmbench.registry import Registry
from lvlmbench.scenes.recipes import (
    atmosphere,
    basic,
    causal,
    counting,
    layout,
    logic,
    mood,
    position,
    reading,
    reasoning,
    relations,
    semantic,
)
from lvlmbench.scenes.recipes._common import Recipe, Scene

__all__ = ["RECIPES", "Recipe", "Scene"]

RECIPES: Registry[Recipe] = Registry("scene recipe")
"""Every fine aspect's recipe; each module declares its own, and a name two modules declare is
refused (DuplicateName) rather than the later one silently winning."""
for _module in (
    basic,
    counting,
    reading,
    position,
    layout,
    semantic,
    relations,
    reasoning,
    logic,
    causal,
    atmosphere,
    mood,
):
    for _aspect, _recipe in _module.RECIPES.items():
        RECIPES.add(_aspect, _recipe)
