"""Reflection (Park et al. 2023, section 4.2): questions, insights citing evidence, a tree.

See runtime/reflections.py for the trigger and the job, and docs/reflection.md.
"""
