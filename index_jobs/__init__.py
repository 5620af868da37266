"""Spark jobs (spark-submit entry points) of autovalidate's offline stage."""
