package dev.mosaic.searcher;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Command line of a stand-alone searcher: {@code SearcherMain serve --store DIR --port N} serves a
 * store directory over HTTP with no other service running. See {@code searcher/README.md}.
 */
@Command(
    name = "searcher",
    mixinStandardHelpOptions = true,
    subcommands = {SearcherMain.Serve.class},
    description = "Mosaic searcher node.")
public final class SearcherMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Entry point; exits with the command's exit code. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SearcherMain()).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "missing command: try 'serve --store DIR'");
  }

  /** {@code serve}: runs a searcher node until interrupted. */
  @Command(
      name = "serve",
      mixinStandardHelpOptions = true,
      description = "Serve a partition store directory over HTTP until stopped (Ctrl-C).")
  static final class Serve implements Callable<Integer> {
    @Option(
        names = "--store",
        required = true,
        description = "Store root (v{schema}/{partition}/{version}.mosaic).")
    Path store;

    @Option(
        names = "--port",
        defaultValue = "8080",
        description = "HTTP port (0: any free port). Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(
        names = "--host",
        defaultValue = "127.0.0.1",
        description = "Interface to bind. Default: ${DEFAULT-VALUE}.")
    String host;

    @Option(
        names = "--schema-version",
        description = "Schema version to serve. Default: the newest held.")
    Integer schemaVersion;

    @Option(
        names = "--keep",
        defaultValue = "2",
        description = "Versions kept per partition. Default: ${DEFAULT-VALUE}.")
    int keep;

    @Option(
        names = "--max-limit",
        defaultValue = "1000",
        description = "Largest search limit. Default: ${DEFAULT-VALUE}.")
    int maxLimit;

    @Option(
        names = "--scan-interval",
        defaultValue = "PT10S",
        description = "Safety rescan period (ISO-8601). Default: ${DEFAULT-VALUE}.")
    Duration scanInterval;

    @Option(
        names = "--arena-group-size",
        defaultValue = "16",
        description =
            "Partitions mapped by one bulk reopen (64 or more) that share an arena. Default:"
                + " ${DEFAULT-VALUE}.")
    int arenaGroupSize;

    @Option(
        names = "--partition-group-size",
        defaultValue = "32",
        description =
            "Consecutive partitions merged into one local group in the background and queried as"
                + " one (group files in <store>/groups); 0 queries every partition as itself."
                + " Default: ${DEFAULT-VALUE}.")
    int partitionGroupSize;

    @Option(
        names = "--query-threads",
        description = "Query threads. Default: number of cores, at least 2.")
    Integer queryThreads;

    @Option(
        names = "--skip-verify-on-start",
        description = "Trust files on disk at start (structure checked, checksum not).")
    boolean skipVerifyOnStart;

    @Option(
        names = "--allow-uploads",
        description = "Enable PUT /partitions/{p}/versions/{v} for files up to this many MiB.")
    int allowUploadsMiB;

    @Option(
        names = "--admin-token-file",
        description =
            "File holding the operator token for pin/unpin/schema/upload (default: the"
                + " MOSAIC_ADMIN_TOKEN environment variable; neither: admin endpoints disabled).")
    Path adminTokenFile;

    @Option(
        names = "--descriptor-set",
        paramLabel = "FILE",
        description =
            "Protobuf descriptor set (protoc --include_imports --descriptor_set_out) of the"
                + " payload types, so that payloads of any type come back as JSON (the built-in"
                + " feed messages are always known).")
    Path descriptorSet;

    @Override
    public Integer call() throws Exception {
      PayloadDecoder payloads = new PayloadDecoder();
      if (descriptorSet != null) {
        payloads.register(dev.mosaic.api.schema.ProtoTypes.load(descriptorSet));
      }
      SearcherNode.Builder b =
          SearcherNode.builder(store)
              .payloadDecoder(payloads)
              .host(host)
              .port(port)
              .keepVersions(keep)
              .maxLimit(maxLimit)
              .scanInterval(scanInterval)
              .arenaGroupSize(arenaGroupSize)
              .partitionGroupSize(partitionGroupSize)
              .verifyOnStart(!skipVerifyOnStart)
              .allowUploads(allowUploadsMiB * 1024L * 1024L);
      if (schemaVersion != null) {
        b.schemaVersion(schemaVersion);
      }
      String token =
          adminTokenFile != null
              ? java.nio.file.Files.readString(adminTokenFile).strip()
              : System.getenv("MOSAIC_ADMIN_TOKEN");
      if (token != null && !token.isEmpty()) {
        b.adminToken(token);
      }
      if (queryThreads != null) {
        b.queryThreads(queryThreads);
      }
      SearcherNode node = b.build();
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    node.close();
                    stopped.countDown();
                  },
                  "searcher-shutdown"));
      node.start();
      System.out.println(
          "searcher listening on http://" + node.address().getHostString() + ":" + node.port());
      stopped.await();
      return 0;
    }
  }
}
