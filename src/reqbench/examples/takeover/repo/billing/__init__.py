"""Coworking-space billing: monthly invoices for members of a shared office."""
