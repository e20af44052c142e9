package regions

func stopBenchServers() {}
