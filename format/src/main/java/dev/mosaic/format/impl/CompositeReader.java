package dev.mosaic.format.impl;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.util.List;

/** Placeholder until the composite lands. */
public final class CompositeReader implements CompositeDatabase {
  private final Schema schema;
  private final List<Database> partitions;

  public CompositeReader(Schema schema, List<? extends Database> partitions) {
    this.schema = schema;
    this.partitions = List.copyOf(partitions);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public List<Database> partitions() {
    return partitions;
  }

  @Override
  public long documentCount() {
    long n = 0;
    for (Database d : partitions) {
      n += d.documentCount();
    }
    return n;
  }

  @Override
  public long count(Query query) {
    throw new UnsupportedOperationException("composite not implemented yet");
  }

  @Override
  public void execute(Query query, DocumentProcessor processor) {
    throw new UnsupportedOperationException("composite not implemented yet");
  }
}
