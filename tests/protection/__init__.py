"""Game protection: bet valuation, ratings, sessions, advantage-play detection, edges and anomalies."""
