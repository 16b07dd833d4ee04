"""Explanations: proof trees and why-not answers computed from the rules (``proofs``)."""
