package dev.mosaic.format;

/**
 * What a field is for. FILTERABLE: 0..n values per document, usable in conditions. SORTABLE:
 * exactly one value per document, usable in {@code orderBy} and value extraction. FULL: both
 * (exactly one value per document).
 */
public enum FieldRole {
  FILTERABLE,
  SORTABLE,
  FULL;

  /** True for FILTERABLE and FULL. */
  public boolean isFilterable() {
    return this != SORTABLE;
  }

  /** True for SORTABLE and FULL. */
  public boolean isSortable() {
    return this != FILTERABLE;
  }
}
