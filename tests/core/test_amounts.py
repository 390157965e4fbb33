"""Money amounts as shops around the world print them, and the number each one means."""

from __future__ import annotations

import pytest

from mika.action.amounts import amount_value, amounts_in

AMOUNTS = [
    ("¥23.50", 23.5),
    ("￥２３.５０", 23.5),
    ("23,50 €", 23.5),
    ("€23,50", 23.5),
    ("1.234,56 €", 1234.56),
    ("$1,234.56", 1234.56),
    ("R$ 1.299,90", 1299.9),
    ("₹1,23,456.00", 123456.0),
    ("₩12,000", 12000.0),
    ("12\u202f345,67\u00a0₽", 12345.67),
    ("CHF 9.–", 9.0),
    ("US$5", 5.0),
    ("23.50元", 23.5),
    ("100 TL", 100.0),
    ("Rp 150.000", 150000.0),
    ("RM 12.90", 12.9),
    ("5 zł", 5.0),
    ("1 299 Kč", 1299.0),
    ("£4.99", 4.99),
    ("12.00 USD", 12.0),
    ("RMB 100", 100.0),
    ("99 kr", 99.0),
    ("₫250.000", 250000.0),
    ("฿1,290", 1290.0),
    ("1.500 ₺", 1500.0),
    ("AED 20", 20.0),
    ("1'234.50 CHF", 1234.5),
]


@pytest.mark.parametrize(("shown", "value"), AMOUNTS)
def test_an_amount_is_found_and_read_as_its_writer_meant(shown, value):
    found = amounts_in(f"Total: {shown}")
    assert len(found) == 1, (shown, found)
    assert amount_value(found[0]) == value


@pytest.mark.parametrize("text", ["Step 2 of 3", "3 items", "Version 1.2.3", "Call 555-0100", "Page 12,13", "Size 42"])
def test_numbers_without_a_currency_are_no_amount(text):
    assert amounts_in(text) == []


def test_a_quantity_before_a_price_is_not_part_of_it():
    assert [amount_value(a) for a in amounts_in("Qty 1 23,50 €")] == [23.5]


def test_the_same_amount_written_two_ways_has_one_value():
    assert amount_value("23,50 €") == amount_value("€23.50") == amount_value("EUR 23.50")
