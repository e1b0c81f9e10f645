enum WarmCacheBuilderModule {}
