package dev.mosaic.format.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Every refusal of the codec names the JSON path at fault and what was wrong there. */
class QueryCodecErrorsTest {
  private static final RequestLimits SMALL = new RequestLimits(100, 1000, 5, 3, 4, 2, 10, 2, 2, 3);

  private static InvalidQueryException refusal(String json) {
    try {
      QueryCodec.decodeSearch(
          json.getBytes(StandardCharsets.UTF_8), QueryCodecRoundTripTest.SCHEMA, SMALL);
    } catch (InvalidQueryException e) {
      return e;
    }
    throw new AssertionError("accepted " + json);
  }

  @Test
  void aValueOfTheWrongTypeNamesItsPathAndTheFieldType() {
    InvalidQueryException e =
        refusal("{\"filter\": {\"and\": [{\"all\": {}}, {\"gt\": {\"l\": \"cheap\"}}]}}");
    assertThat(e.path()).isEqualTo("filter.and[1].gt.l");
    assertThat(e.getMessage())
        .isEqualTo(
            "filter.and[1].gt.l: field 'l' is LONG and needs a 64-bit integer, got the string"
                + " \"cheap\"");
  }

  @Test
  void unknownKeysFieldsAndOperatorsAreNamed() {
    assertThat(refusal("{\"where\": {}}").getMessage())
        .isEqualTo(
            "unknown key 'where'; allowed keys are [explain, facets, fields, filter, limit,"
                + " orderBy, payload, skip, stats]");
    assertThat(refusal("{\"filter\": {\"eq\": {\"colour\": 1}}}").path())
        .isEqualTo("filter.eq.colour");
    assertThat(refusal("{\"filter\": {\"not\": {\"like\": {}}}}").getMessage())
        .startsWith("filter.not: unknown operator 'like'");
    assertThat(refusal("{\"orderBy\": [\"n\", \"-b\"]}").getMessage())
        .startsWith("orderBy[1]: cannot sort on field 'b': it is FILTERABLE, not sortable");
    assertThat(refusal("{\"facets\": [{\"field\": \"rank\"}]}").getMessage())
        .isEqualTo("facets[0].field: cannot facet on field 'rank': it is SORTABLE, not filterable");
    assertThat(refusal("{\"stats\": [{\"field\": \"n\", \"bounds\": [1, \"x\"]}]}").path())
        .isEqualTo("stats[0].bounds[1]");
  }

  @Test
  void structuralLimitsAreNamedWithTheirValue() {
    assertThat(refusal("{\"limit\": 101}").getMessage())
        .isEqualTo("limit: 101 is over the maximum of 100 (maxLimit)");
    assertThat(refusal("{\"skip\": 950, \"limit\": 100}").getMessage())
        .startsWith(
            "skip: skip + limit = 1050 is over the maximum result window of 1000"
                + " (maxResultWindow)");
    assertThat(refusal("{\"filter\": {\"not\": {\"not\": {\"not\": {\"all\": {}}}}}}").getMessage())
        .isEqualTo(
            "filter.not.not.not: conditions nest deeper than the maximum depth of 3 (maxDepth)");
    assertThat(refusal("{\"filter\": {\"in\": {\"n\": [1, 2, 3, 4, 5]}}}").getMessage())
        .isEqualTo("filter.in.n: 5 values is over the maximum of 4 in one in list (maxInValues)");
    assertThat(refusal("{\"fields\": [\"n\", \"l\", \"d\", \"s\"]}").getMessage())
        .isEqualTo("fields: 4 entries is over the maximum of 3 (maxFields)");
  }

  @Test
  void malformedJsonIsLocated() {
    assertThat(refusal("{\"filter\": ").getMessage())
        .startsWith("malformed JSON: ")
        .contains("line 1");
    assertThat(refusal("[1, 2]").getMessage())
        .isEqualTo("expected a JSON object but got an array [1,2]");
    assertThatThrownBy(
            () ->
                QueryCodec.decodeCount(
                    "{\"limit\": 1}".getBytes(StandardCharsets.UTF_8),
                    QueryCodecRoundTripTest.SCHEMA,
                    RequestLimits.NONE))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessage("unknown key 'limit'; allowed keys are [facets, filter, stats]");
  }
}
