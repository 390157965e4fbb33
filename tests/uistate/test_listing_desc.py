"""A text label keeps the content description beside it when that says more (issue 35):
an icon button whose text is "−" is "Decrease brightness" to a person using TalkBack, and
only the pair tells the model which way it goes. A description the text already says adds
no tokens. Checked on a real Gmail dump and on the simulated phone's Display settings as
`uiautomator dump` gives them."""

from __future__ import annotations

from real_fixtures import real_bytes

from mika.sim.apps.frame import build_frame
from mika.sim.phone import make_device
from mika.sim.world.hierarchy import dump_plain
from mika.uistate import build_screen, parse_hierarchy
from mika.uistate.listing_read import elements_in, number_for
from mika.uistate.recall import listing_recall


def _line(listing: str, number: int) -> str:
    return next(line for line in listing.splitlines() if line.startswith(f"{number} "))


def test_a_real_button_whose_description_says_more_shows_both() -> None:
    screen = build_screen(parse_hierarchy(real_bytes("ui_dumps/gmail__inbox_compose.xml")))
    listing = screen.listing()
    dismiss = number_for(listing, "Dismiss", "button")
    assert _line(listing, dismiss) == f'{dismiss} button "Dismiss" ("Dismiss tip")'
    # Text and description the same ("Compose" twice): said once.
    compose = number_for(listing, "Compose", "button")
    assert _line(listing, compose) == f'{compose} button "Compose"'
    # The listing is still read by its first label, and recall still holds.
    assert (dismiss, "button", "Dismiss", ' ("Dismiss tip")') in elements_in(listing)
    assert not listing_recall(screen.tree, screen.frame, listing).missed


def test_the_brightness_buttons_of_the_sim_say_which_way_they_go() -> None:
    world = make_device("desc").world
    world.launch("com.android.settings", 0, screen="Display")
    screen = build_screen(parse_hierarchy(dump_plain(build_frame(world, 0))), size=(1080, 2400))
    listing = screen.listing()
    lines = {line.split(" ", 1)[1] for line in listing.splitlines() if line[:1].isdigit()}
    assert 'button "−" ("Decrease brightness")' in lines, listing
    minus = next(e for e in screen.elements if e.label == "−")
    assert minus.desc == "Decrease brightness" and minus.as_dict()["desc"] == "Decrease brightness"
