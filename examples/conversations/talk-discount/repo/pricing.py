"""Prices for the shop."""


def apply_discount(price, percent):
    """Return price reduced by percent, a number from 0 to 100."""
    return price - percent


def total(prices, percent=0):
    """Sum prices, each discounted by percent."""
    return sum(apply_discount(p, percent) for p in prices)
