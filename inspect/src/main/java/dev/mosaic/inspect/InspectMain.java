package dev.mosaic.inspect;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.mosaic.format.Aggregation;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.Field;
import dev.mosaic.format.FileLayout;
import dev.mosaic.format.Hit;
import dev.mosaic.format.Page;
import dev.mosaic.format.Schema;
import dev.mosaic.format.json.InvalidQueryException;
import dev.mosaic.format.json.QueryCodec;
import dev.mosaic.format.json.RequestLimits;
import dev.mosaic.format.json.SearchRequest;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Query;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code mosaic-inspect}: looks inside database files. Subcommands: {@code info} (header, schema,
 * segments with sizes), {@code fields} (per-field value counts and top values), {@code verify}
 * (structure and checksum), {@code dump} (documents as JSON lines), {@code query} (a JSON query
 * over one or more files, with {@code --explain}), {@code merge} (several partition files of one
 * schema into one new file, without rebuilding from documents).
 *
 * <p>Thread safety: one invocation per instance. Exit codes: 0 success, 1 a failed check or error,
 * 2 bad usage.
 */
@Command(
    name = "mosaic-inspect",
    mixinStandardHelpOptions = true,
    description = "Inspects Mosaic database files.",
    subcommands = {
      InspectMain.Info.class,
      InspectMain.Fields.class,
      InspectMain.Verify.class,
      InspectMain.Dump.class,
      InspectMain.QueryCommand.class,
      InspectMain.Merge.class
    })
public final class InspectMain implements Runnable {
  static final ObjectMapper JSON =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS).findAndRegisterModules();

  @Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs the tool with the given output streams; returns the exit code. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = new CommandLine(new InspectMain());
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          line.getErr().println("error: " + e.getMessage());
          return 1;
        });
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "info", description = "Header, schema and segments with sizes.")
  static final class Info implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "FILE")
    Path file;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (Database db = Database.open(file)) {
        Schema s = db.schema();
        out.printf("file: %s%n", file);
        out.printf("format version: %d%n", db.formatVersion());
        out.printf("schema version: %d%n", s.version());
        out.printf("payload type: %s%n", s.payloadType());
        out.printf("documents: %d%n", db.documentCount());
        out.printf("size: %d bytes%n", db.sizeInBytes());
        out.println("fields:");
        for (Field f : s.fields()) {
          out.printf("  %s %s %s%n", f.name(), f.type(), f.role());
        }
        if (db.layout().isPresent()) {
          FileLayout layout = db.layout().get();
          out.printf(
              "payloads: %s, %d bytes stored, %d bytes uncompressed%s%n",
              layout.payloadsCompressed() ? layout.payloadCodec() + " blocks" : "raw",
              layout.payloadBytesStored(),
              layout.payloadBytesUncompressed(),
              layout.payloadsCompressed()
                  ? ", "
                      + layout.payloadBlockCount()
                      + " blocks"
                      + (layout.payloadDictionaryBytes() > 0
                          ? ", " + layout.payloadDictionaryBytes() + " dictionary bytes"
                          : "")
                  : "");
          out.println("segments:");
          for (FileLayout.Segment seg : layout.segments()) {
            out.printf(
                "  %-10s %-16s offset %10d  length %10d%n",
                seg.kind(), seg.field() == null ? "-" : seg.field(), seg.offset(), seg.length());
          }
        }
      }
      return 0;
    }
  }

  @Command(name = "fields", description = "Per-field value counts and top values.")
  static final class Fields implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "FILE")
    Path file;

    @Option(
        names = "--top",
        defaultValue = "5",
        description = "Top values shown per field (default ${DEFAULT-VALUE}).")
    int top;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (Database db = Database.open(file)) {
        List<Facet> all = new ArrayList<>();
        List<Facet> tops = new ArrayList<>();
        for (Field f : db.schema().fields()) {
          if (f.role().isFilterable()) {
            all.add(Facet.all(f.name()));
            tops.add(Facet.top(f.name(), top));
          }
        }
        List<String> bloomFields = db.layout().map(FileLayout::bloomFilterFields).orElse(List.of());
        Aggregation distinct = db.aggregate(Condition.all(), all, List.of());
        Aggregation best = db.aggregate(Condition.all(), tops, List.of());
        for (int i = 0; i < all.size(); i++) {
          Aggregation.FacetCounts counts = distinct.facets().get(i);
          long values = 0;
          for (Aggregation.Entry e : counts.entries()) {
            values += e.count();
          }
          out.printf(
              "%s: %d distinct values, %d (document, value) pairs%s%n",
              counts.field(),
              counts.entries().size(),
              values,
              bloomFields.contains(counts.field()) ? ", bloom filter" : "");
          for (Aggregation.Entry e : best.facets().get(i).entries()) {
            out.printf("  %s: %d%n", display(e.value()), e.count());
          }
        }
        for (Field f : db.schema().fields()) {
          if (!f.role().isFilterable()) {
            out.printf("%s: sortable only (no value counts)%n", f.name());
          }
        }
      }
      return 0;
    }
  }

  @Command(
      name = "merge",
      description =
          "Merges partition files of the same schema into one new file (documents in input order),"
              + " without rebuilding from documents.")
  static final class Merge implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = {"-o", "--output"},
        required = true,
        description = "File to create; it must not exist.")
    Path output;

    @Option(
        names = "--compression",
        description = "Payload storage of the result: ${COMPLETION-CANDIDATES} (default AUTO).")
    dev.mosaic.format.PayloadCompression compression = dev.mosaic.format.PayloadCompression.AUTO;

    @Option(
        names = "--block-size",
        description =
            "Target size of LZ4 blocks compressed by the merge (default ${DEFAULT-VALUE}).")
    int blockSize = dev.mosaic.format.DatabaseMerger.DEFAULT_PAYLOAD_BLOCK_SIZE;

    @Option(
        names = "--reblock",
        description =
            "Re-block every payload instead of copying the LZ4 blocks of compressed inputs"
                + " (slower; the bytes of a rebuild).")
    boolean reblock;

    @Option(names = "--bloom", description = "Adds a Bloom filter on a filterable field.")
    List<String> blooms = new ArrayList<>();

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Input partition files.")
    List<Path> inputs;

    @Override
    public Integer call() throws Exception {
      dev.mosaic.format.DatabaseMerger.Builder b =
          dev.mosaic.format.DatabaseMerger.builder()
              .addAll(inputs)
              .output(output)
              .payloadCompression(compression)
              .payloadBlockSize(blockSize)
              .copyCompressedBlocks(!reblock);
      blooms.forEach(b::bloomFilter);
      dev.mosaic.format.DatabaseMerger.Summary s = b.build().merge();
      PrintWriter out = spec.commandLine().getOut();
      out.printf("merged %d files, %d documents into %s%n", s.inputs(), s.documents(), s.output());
      out.printf("size: %d bytes, format version %d%n", s.sizeInBytes(), s.formatVersion());
      out.printf(
          "payloads: %s%n",
          s.payloadsCompressed()
              ? "lz4 blocks (" + s.copiedBlocks() + " copied, " + s.compressedBlocks() + " new)"
              : "raw");
      out.printf(
          "bloom filters: %s%n",
          s.bloomFilters().isEmpty() ? "none" : String.join(", ", s.bloomFilters()));
      out.printf("time: %.1f ms%n", s.elapsedNanos() / 1e6);
      return 0;
    }
  }

  @Command(name = "verify", description = "Checks structure and checksum.")
  static final class Verify implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*")
    List<Path> files;

    @Override
    public Integer call() {
      int failed = 0;
      for (Path f : files) {
        try {
          Database.verify(f);
          spec.commandLine().getOut().printf("OK %s%n", f);
        } catch (Exception e) {
          failed++;
          spec.commandLine().getOut().printf("CORRUPT %s: %s%n", f, e.getMessage());
        }
      }
      return failed == 0 ? 0 : 1;
    }
  }

  @Command(
      name = "dump",
      description =
          "Documents as JSON lines: id, sortable values, payload (base64). Filterable-only values"
              + " are not stored per document and are not shown.")
  static final class Dump implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "FILE")
    Path file;

    @Option(names = "--from", defaultValue = "0")
    int from;

    @Option(names = "--limit", defaultValue = "100")
    int limit;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (Database db = Database.open(file)) {
        long end = Math.min(db.documentCount(), (long) from + limit);
        for (int d = from; d < end; d++) {
          out.println(JSON.writeValueAsString(document(db, d)));
        }
      }
      return 0;
    }
  }

  static Map<String, Object> document(Database db, int d) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("id", d);
    for (Field f : db.schema().fields()) {
      if (f.role().isSortable()) {
        Object v = db.sortableValue(d, f.name());
        doc.put(f.name(), v instanceof java.time.Instant i ? i.toString() : v);
      }
    }
    doc.put("payload", db.payloadBytes(d));
    return doc;
  }

  @Command(
      name = "query",
      description =
          "Runs a JSON query over one or more files, in the query language of the searcher"
              + " (searcher/QUERY.md).")
  static final class QueryCommand implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*")
    List<Path> files;

    @Option(
        names = {"-q", "--query"},
        required = true,
        description =
            "The search as JSON (searcher/QUERY.md), e.g."
                + " {\"filter\":{\"eq\":{\"mark\":\"bmw\"}},\"orderBy\":[\"-price\"],\"limit\":5}")
    String json;

    @Option(names = "--explain", description = "Print each step's matching count and time.")
    boolean explain;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      List<Database> dbs = new ArrayList<>();
      try {
        for (Path f : files) {
          dbs.add(Database.open(f));
        }
        Schema schema = dbs.get(0).schema();
        CompositeDatabase composite = CompositeDatabase.of(schema, dbs);
        SearchRequest search;
        try {
          search =
              QueryCodec.decodeSearch(
                  json.getBytes(StandardCharsets.UTF_8), schema, RequestLimits.NONE);
        } catch (InvalidQueryException e) {
          spec.commandLine().getErr().println("bad query: " + e.getMessage());
          return 2;
        }
        Query query = search.query();
        Page page = composite.page(query, search.facets(), search.stats());
        out.printf("count: %d%n", page.total());
        if (!search.facets().isEmpty() || !search.stats().isEmpty()) {
          out.println("aggregation: " + JSON.writeValueAsString(page.aggregation()));
        }
        for (Hit hit : page.hits()) {
          Map<String, Object> d = document(hit.database(), hit.document());
          d.keySet().removeIf(k -> schema.hasField(k) && !search.fields().contains(k));
          if (!search.payload()) {
            d.remove("payload");
          }
          d.put("partition", files.get(hit.partition()).toString());
          out.println(JSON.writeValueAsString(d));
        }
        if (explain || search.explain()) {
          out.println("explain:");
          out.print(composite.explain(query).toText());
        }
      } finally {
        dbs.forEach(Database::close);
      }
      return 0;
    }
  }

  private static String display(Object v) {
    return v instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : String.valueOf(v);
  }

  static {
    JSON.getFactory().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
  }
}
