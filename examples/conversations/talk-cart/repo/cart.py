"""The shop's cart."""

FREE_SHIPPING = 50
SHIPPING = 5


def subtotal(items):
    """The cost of items, a list of (price, quantity) pairs."""
    return sum(price for price, quantity in items)


def shipping(amount):
    """Shipping for an order of amount: free from FREE_SHIPPING on."""
    if amount > FREE_SHIPPING:
        return 0
    return SHIPPING


def total(items):
    """What the customer pays."""
    amount = subtotal(items)
    return amount + shipping(amount)
