#!/usr/bin/python3
"""A handbook-like payment producer on librdkafka, configured by environment variables: COUNT
payments to KAFKA_TOPIC at KAFKA_BOOTSTRAP, key = payment id, value {"paymentId", "amountCents",
"currency"}; ids start with PAYMENT_PREFIX (default "pay"); PARTITION (optional): every payment to that one
partition, not by its key. Nothing of replay-lab inside it.
"""
import json
import os
import random
import sys

from confluent_kafka import Producer


def main():
    env = os.environ
    count = int(env.get("COUNT", "100"))
    prefix = env.get("PAYMENT_PREFIX", "pay")
    producer = Producer({"bootstrap.servers": env["KAFKA_BOOTSTRAP"], "acks": "all", "enable.idempotence": True})
    rnd = random.Random(11)
    at = {"partition": int(env["PARTITION"])} if env.get("PARTITION") else {}
    failed = []
    for i in range(count):
        payment_id = f"{prefix}-{i:05d}"
        value = {"paymentId": payment_id, "amountCents": rnd.randint(1, 100_000), "currency": "EUR"}
        producer.produce(env["KAFKA_TOPIC"], key=payment_id.encode(), value=json.dumps(value).encode(), **at,
                         on_delivery=lambda err, _msg: err and failed.append(err))
        producer.poll(0)
    left = producer.flush(30)
    if left or failed:
        print(f"not delivered: {left} in the queue, errors {failed[:3]}", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"produced {count} payments to {env['KAFKA_TOPIC']}", flush=True)


if __name__ == "__main__":
    main()
