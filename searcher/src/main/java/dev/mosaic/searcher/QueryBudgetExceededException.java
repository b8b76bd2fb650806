package dev.mosaic.searcher;

/**
 * A query ran past its time budget ({@link QueryLimits#timeBudget()}) and was cancelled. Answered
 * 400 like every other query the searcher refuses; the message names the budget.
 */
public final class QueryBudgetExceededException extends BadQueryException {
  private static final long serialVersionUID = 1L;

  /** A query cancelled after {@code budgetMillis}. */
  public QueryBudgetExceededException(long budgetMillis, String where) {
    super(
        "query cancelled: over its time budget of "
            + budgetMillis
            + " ms "
            + where
            + "; narrow the filter or lower the limit");
  }
}
