enum TestSupportModule {}
