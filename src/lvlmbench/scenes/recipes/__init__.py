"""One recipe (scene sampler + question writer) per fine aspect of the built-in taxonomy."""

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

RECIPES: dict[str, Recipe] = {
    **basic.RECIPES,
    **counting.RECIPES,
    **reading.RECIPES,
    **position.RECIPES,
    **layout.RECIPES,
    **semantic.RECIPES,
    **relations.RECIPES,
    **reasoning.RECIPES,
    **logic.RECIPES,
    **causal.RECIPES,
    **atmosphere.RECIPES,
    **mood.RECIPES,
}
