"""Driving Ansible from vfix: where its content lives, inventories, and one runner wrapper."""
