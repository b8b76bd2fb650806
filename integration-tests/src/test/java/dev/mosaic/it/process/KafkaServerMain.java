package dev.mosaic.it.process;

import dev.mosaic.embedded.EmbeddedKafka;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;

/**
 * A Kafka broker (KRaft, one node) as its own process, for the process fault tests: {@code
 * KafkaServerMain <port> <log dir>}. Prints {@code kafka ready at <bootstrap>} once the broker
 * answers, then runs until killed. Restarted over the same log directory it keeps its topics, its
 * offsets and its ports.
 */
public final class KafkaServerMain {
  private KafkaServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: KafkaServerMain <port> <log dir>");
      System.exit(2);
    }
    EmbeddedKafka kafka =
        EmbeddedKafka.builder()
            .port(Integer.parseInt(args[0]))
            .logDir(Path.of(args[1]))
            .build()
            .start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    kafka.close();
                  } catch (Exception e) {
                    LoggerFactory.getLogger(KafkaServerMain.class)
                        .warn("closing the Kafka broker failed", e);
                  }
                }));
    System.out.println("kafka ready at " + kafka.bootstrapServers());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
