package dev.mosaic.format;

import dev.mosaic.format.impl.DatabaseReader;
import dev.mosaic.format.impl.PartitionSearcher;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;

/**
 * The one implementation of {@link Database}: a partition the format opened, read through its
 * {@link DatabaseReader} and searched through its {@link PartitionSearcher}. Every method delegates
 * to one of the two.
 *
 * <p>Thread safety: as {@link Database}.
 */
final class PartitionDatabase implements Database, PartitionSearcher.Holder {
  private final DatabaseReader reader;
  private final PartitionSearcher searcher;

  PartitionDatabase(DatabaseReader reader) {
    this.reader = reader;
    this.searcher = new PartitionSearcher(reader, this);
  }

  @Override
  public PartitionSearcher searcher() {
    return searcher;
  }

  @Override
  public Schema schema() {
    return reader.schema();
  }

  @Override
  public long documentCount() {
    return reader.documentCount();
  }

  @Override
  public CompiledQuery compile(Query query, List<Facet> facets, List<Stats> stats) {
    return searcher.compile(query, facets, stats);
  }

  @Override
  public long count(CompiledQuery query) {
    return searcher.count(query);
  }

  @Override
  public void execute(CompiledQuery query, DocumentProcessor processor) {
    searcher.execute(query, processor);
  }

  @Override
  public Page page(CompiledQuery query) {
    return searcher.page(query);
  }

  @Override
  public Aggregation aggregate(CompiledQuery query) {
    return searcher.aggregate(query);
  }

  @Override
  public Explanation explain(CompiledQuery query) {
    return searcher.explain(query);
  }

  @Override
  public MemorySegment payload(int document) {
    return reader.payload(document);
  }

  @Override
  public byte[] payloadBytes(int document) {
    return reader.payloadBytes(document);
  }

  @Override
  public Object sortableValue(int document, String field) {
    return reader.sortableValue(document, field);
  }

  @Override
  public byte[] sortableBytes(int document, String field) {
    return reader.sortableBytes(document, field);
  }

  @Override
  public Optional<FileLayout> layout() {
    return reader.layout();
  }

  @Override
  public long sizeInBytes() {
    return reader.sizeInBytes();
  }

  @Override
  public int formatVersion() {
    return reader.formatVersion();
  }

  @Override
  public void close() {
    reader.close();
  }

  @Override
  public String toString() {
    return reader.toString();
  }
}
