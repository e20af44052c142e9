package stream

func stopBenchServers() {}
