"""The rules engine: cards, the Table of Play, coups, shoes, wagers, settlement, money, the roads and each game clause by clause."""
