package io.replaylab.harness;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code replay-lab broker}: a local Kafka broker (the bundled kafka_2.13) in the foreground until Ctrl-C / SIGTERM. */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = "Start a local single-node Kafka broker (KRaft) and keep it running until Ctrl-C or SIGTERM.")
final class BrokerCommand implements java.util.concurrent.Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--port", description = "PLAINTEXT port on 127.0.0.1 (default: a free port)")
    int port;

    @Option(names = "--data-dir", description = "work dir for data, config and broker.log; reused if it exists (default: a temp dir, deleted on stop)")
    Path dataDir;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        LocalKafkaConfig.Builder cfg = LocalKafkaConfig.custom().port(port);
        if (dataDir != null) {
            cfg.workDir(dataDir);
        }
        LocalKafka kafka = LocalKafka.create(cfg.build());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "replay-lab-broker-stop"));
        kafka.start();
        out.println("bootstrap.servers=" + kafka.bootstrapServers());
        out.println("# broker pid " + kafka.pid() + ", log " + kafka.logFile() + "; Ctrl-C stops it");
        out.flush();
        stopped.await();
        return ReplayLab.OK;
    }
}
