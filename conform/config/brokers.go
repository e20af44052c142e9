package config

// The brokers consumer.broker may name: one blank import per broker, each
// registering itself with conform/broker (its name, capabilities, opener).
import (
	_ "github.com/idemcheck/idemcheck/conform/broker/kafka"
	_ "github.com/idemcheck/idemcheck/conform/broker/rabbitmq"
	_ "github.com/idemcheck/idemcheck/conform/broker/sqs"
)
