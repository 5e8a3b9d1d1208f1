#!/usr/bin/env bash
# Reference solution: run in the workspace.
sed -i 's/    return sum(price for price, quantity in items)/    return sum(price * quantity for price, quantity in items)/; s/    if amount > FREE_SHIPPING:/    if amount >= FREE_SHIPPING:/' cart.py
