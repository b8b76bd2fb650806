package dev.mosaic.deploy;

import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code schema --index NAME --version S}: makes every searcher registered for an index serve that
 * schema version (rolling a schema change out once complete, or back to the previous version, whose
 * files the stores keep): {@code POST /indexes/<name>/schema?version=S} with the operator token on
 * each searcher found in the index's ZooKeeper registry, one line per searcher. A searcher whose
 * store holds no file of that version answers 400 naming the versions it holds and keeps serving
 * what it served; the command then exits 1. An index not configured, or with no searcher
 * registered, fails naming it before anything is asked.
 *
 * <p>Thread safety: a command, run once.
 */
@Command(
    name = "schema",
    mixinStandardHelpOptions = true,
    description =
        "Switches every searcher of an index to a schema version (roll out, or roll back to the"
            + " previous one); needs the operator token (mosaic.searcher.admin-token-file or"
            + " MOSAIC_ADMIN_TOKEN).")
final class SchemaCommand implements Callable<Integer> {
  @Mixin ConfigOptions options;

  @Option(
      names = "--index",
      paramLabel = "NAME",
      description = "The index (default: the default one).")
  String indexName;

  @Option(names = "--version", paramLabel = "S", required = true, description = "Schema version.")
  int version;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    MosaicConfig config = options.load();
    if (config.zkConnect.isEmpty()) {
      throw new IllegalArgumentException(
          "the schema command needs the cluster's ZooKeeper: set mosaic.zookeeper.connect");
    }
    IndexConfig index = indexName == null ? config.defaultIndex() : config.index(indexName);
    String token =
        AdminToken.read(
                config.searcher.adminTokenFile, config.searcher.adminTokenEnv, System::getenv)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no operator token: set mosaic.searcher.admin-token-file or "
                            + config.searcher.adminTokenEnv));
    PrintWriter out = spec.commandLine().getOut();
    int ok = 0;
    int failed = 0;
    try (CuratorFramework curator = ZooKeeperClients.started(config.zkConnect, config);
        SearcherDiscovery discovery = SearcherDiscovery.watching(curator, index.zkRoot());
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      discovery.start();
      if (discovery.byDc().isEmpty()) {
        throw new IllegalStateException(
            "no searcher is registered for index "
                + index.name()
                + " (ZooKeeper "
                + config.zkConnect
                + ", "
                + index.zkRoot()
                + "/searchers): nothing switched");
      }
      for (Map.Entry<String, List<SearcherEndpoint>> dc : discovery.byDc().entrySet()) {
        for (SearcherEndpoint s : dc.getValue()) {
          String url = s.httpAddress() + "/indexes/" + index.name() + "/schema?version=" + version;
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create(url))
                      .timeout(Duration.ofSeconds(60))
                      .header("Authorization", "Bearer " + token)
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          boolean good = r.statusCode() == 200;
          ok += good ? 1 : 0;
          failed += good ? 0 : 1;
          out.printf(
              "%s %s %s: %d %s%n",
              good ? "ok  " : "FAIL", dc.getKey(), s.nodeId(), r.statusCode(), r.body().strip());
        }
      }
    }
    out.printf(
        "index %s: %d searchers serve schema version %d, %d failed%n",
        index.name(), ok, version, failed);
    out.flush();
    return ok > 0 && failed == 0 ? 0 : 1;
  }
}
