package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.replaylab.oracle.RecordParser.Parsed;
import org.junit.jupiter.api.Test;

class SourceMappingTest {
    private static Parsed parse(SourceMapping m, String key, String value) {
        return parse(m, key, value, Map.of());
    }

    private static Parsed parse(SourceMapping m, String key, String value, Map<String, String> headers) {
        return m.parser().parse(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                name -> headers.containsKey(name) ? headers.get(name).getBytes(StandardCharsets.UTF_8) : null);
    }

    @Test
    void theHandbookShapeIsReadWithTheKeyAsIdentityAndAPointerForTheAmount() {
        SourceMapping m = SourceMapping.of("key", "json:/amountCents", 0);
        assertThat(parse(m, "p-17", "{\"paymentId\":\"p-17\",\"amountCents\":1250,\"currency\":\"EUR\"}")).isEqualTo(Parsed.of("p-17", 1250));
        assertThat(parse(SourceMapping.of("json:/paymentId", "json:/amountCents", 0), null, "{\"paymentId\":\"p-17\",\"amountCents\":-3}"))
                .isEqualTo(Parsed.of("p-17", -3));
    }

    @Test
    void nestedPointersArrayElementsAndEscapedNamesReachTheirField() {
        assertThat(parse(SourceMapping.of("json:/payment/id", "json:/payment/money/cents", 0), null,
                "{\"skip\":{\"id\":\"no\"},\"payment\":{\"id\":\"a\",\"money\":{\"cents\":7}}}")).isEqualTo(Parsed.of("a", 7));
        assertThat(parse(SourceMapping.of("json:/items/1/id", "json:/items/0/n", 0), null, "{\"items\":[{\"id\":\"x\",\"n\":5},{\"id\":\"y\"}]}"))
                .isEqualTo(Parsed.of("y", 5));
        assertThat(parse(SourceMapping.of("json:/a~1b", "json:/c~0d", 0), null, "{\"a/b\":\"slash\",\"c~d\":9}")).isEqualTo(Parsed.of("slash", 9));
    }

    @Test
    void aHeaderCarriesTheIdentityAndANumericIdIsItsCanonicalDecimalText() {
        SourceMapping m = SourceMapping.of("header:message-id", "json:/amount", 0);
        assertThat(parse(m, null, "{\"amount\":3}", Map.of("message-id", "h-1"))).isEqualTo(Parsed.of("h-1", 3));
        assertThat(parse(m, null, "{\"amount\":3}").malformedReason()).isEqualTo("missing id at header:message-id");
        SourceMapping numeric = SourceMapping.of("json:/id", "header:cents", 0);
        assertThat(parse(numeric, null, "{\"id\":42}", Map.of("cents", "100"))).isEqualTo(Parsed.of("42", 100));
        assertThat(parse(numeric, null, "{\"id\":1.50e1}", Map.of("cents", "100"))).isEqualTo(Parsed.of("15", 100));
        assertThat(parse(numeric, null, "{\"id\":true}", Map.of("cents", "1")).malformedReason()).isEqualTo("id at json:/id is a boolean, not a string or a number");
    }

    @Test
    void amountsAreExactIntegersOrDecimalsTurnedIntoMinorUnitsByTheScale() {
        SourceMapping cents = SourceMapping.of("key", "json:/amount", 2);
        assertThat(parse(cents, "k", "{\"amount\":\"12.50\"}")).isEqualTo(Parsed.of("k", 1250));
        assertThat(parse(cents, "k", "{\"amount\":12.5}")).isEqualTo(Parsed.of("k", 1250));
        assertThat(parse(cents, "k", "{\"amount\":12}")).isEqualTo(Parsed.of("k", 1200));
        assertThat(parse(cents, "k", "{\"amount\":\"-0.01\"}")).isEqualTo(Parsed.of("k", -1));
        assertThat(parse(SourceMapping.of("key", "json:/amount", 0), "k", "{\"amount\":\"1250\"}")).as("a string of digits").isEqualTo(Parsed.of("k", 1250));
    }

    @Test
    void aRefusedRecordSaysWhyInItsQuarantineReason() {
        SourceMapping cents = SourceMapping.of("key", "json:/amount", 2);
        assertThat(parse(cents, "k", "{\"amount\":\"12.505\"}").malformedReason())
                .isEqualTo("amount 12.505 at json:/amount has more decimal digits than the amount scale 2");
        assertThat(parse(SourceMapping.of("key", "json:/amount", 0), "k", "{\"amount\":12.5}").malformedReason())
                .startsWith("amount 12.5 at json:/amount has more decimal digits than the amount scale 0");
        assertThat(parse(cents, "k", "{\"amount\":99999999999999999999}").malformedReason())
                .isEqualTo("amount 99999999999999999999 at json:/amount is beyond a 64-bit integer");
        assertThat(parse(SourceMapping.of("key", "json:/amount", 0), "k", "{\"amount\":1e999999999}").malformedReason())
                .as("refused before it is written out").isEqualTo("amount 1e999999999 at json:/amount is beyond a 64-bit integer");
        assertThat(parse(cents, "k", "{\"amount\":1e999999999}").malformedReason()).as("its scale overflows")
                .isEqualTo("amount at json:/amount is '1e999999999', not an exact number");
        assertThat(parse(SourceMapping.of("json:/pid", "json:/amount", 0), null, "{\"pid\":1e999999999,\"amount\":1}").malformedReason())
                .startsWith("id at json:/pid is 1e999999999, not a string or a number");
        assertThat(parse(cents, "k", "{\"amount\":\"12,50\"}").malformedReason()).isEqualTo("amount at json:/amount is '12,50', not a number");
        assertThat(parse(cents, "k", "{\"amount\":null}").malformedReason()).isEqualTo("amount at json:/amount is null, not a number");
        assertThat(parse(cents, "k", "{\"other\":1}").malformedReason()).isEqualTo("missing amount at json:/amount");
        assertThat(parse(cents, null, "{\"amount\":1}").malformedReason()).isEqualTo("missing id at key");
        assertThat(parse(cents, "k", "{\"amount\":").malformedReason()).startsWith("not JSON");
        assertThat(parse(cents, "k", null).malformedReason()).startsWith("null value");
        assertThat(parse(SourceMapping.of("json:/id", "json:/amount", 1), null, "{\"id\":\"\",\"amount\":1}").malformedReason())
                .isEqualTo("empty id at json:/id");
    }

    @Test
    void theReferenceMappingKeepsTheFastReaderAndBadFieldsAreNamed() {
        assertThat(SourceMapping.of("json:/id", "json:/amount", 0).parser()).isSameAs(RecordParsers.paymentJson());
        assertThat(SourceMapping.REFERENCE.isReference()).isTrue();
        assertThat(RecordParsers.mapped(SourceMapping.of("key", "json:/amount", 0))).isNotSameAs(RecordParsers.paymentJson());
        assertThatThrownBy(() -> SourceMapping.Field.parse("json:id")).hasMessageContaining("'json:id': a JSON pointer starts with '/'");
        assertThatThrownBy(() -> SourceMapping.Field.parse("value")).hasMessageContaining("'value' is not a source field");
        assertThatThrownBy(() -> SourceMapping.Field.parse("header:")).hasMessageContaining("names no header");
        assertThatThrownBy(() -> SourceMapping.of("key", "key", 19)).hasMessageContaining("0..18");
        assertThat(SourceMapping.of("key", "json:/a~1b", 2).toString()).isEqualTo("id key, amount json:/a~1b (scale 2)");
    }

    @Test
    void aCopyUnderAnotherIdentityIsWrittenWhereTheMappingReadsItAndReadsBackSoWithEverythingElseKept() {
        byte[] value = "{\"payment\":{\"id\":17,\"amountCents\":1250},\"items\":[{\"id\":\"x\"}]}".getBytes(StandardCharsets.UTF_8);
        org.apache.kafka.common.header.internals.RecordHeaders headers = new org.apache.kafka.common.header.internals.RecordHeaders();
        headers.add("msg-id", "h-1".getBytes(StandardCharsets.UTF_8));
        headers.add("trace", "t".getBytes(StandardCharsets.UTF_8));
        SourceMapping.Raw r = new SourceMapping.Raw("k-1".getBytes(StandardCharsets.UTF_8), value, headers);

        SourceMapping nested = SourceMapping.of("json:/payment/id", "json:/payment/amountCents", 0);
        SourceMapping.Raw json = nested.withId(r, "ns-aborted-1");
        assertThat(new String(json.value(), StandardCharsets.UTF_8))
                .isEqualTo("{\"payment\":{\"id\":\"ns-aborted-1\",\"amountCents\":1250},\"items\":[{\"id\":\"x\"}]}");
        assertThat(nested.parser().parse(json.key(), json.value(), json.lastValues())).isEqualTo(Parsed.of("ns-aborted-1", 1250));
        assertThat(json.key()).isEqualTo(r.key());

        SourceMapping inArray = SourceMapping.of("json:/items/0/id", "json:/payment/amountCents", 0);
        assertThat(inArray.parser().parse(null, inArray.withId(r, "a-2").value(), null)).isEqualTo(Parsed.of("a-2", 1250));

        SourceMapping byKey = SourceMapping.of("key", "json:/payment/amountCents", 0);
        SourceMapping.Raw keyed = byKey.withId(r, "a-3");
        assertThat(byKey.parser().parse(keyed.key(), keyed.value(), keyed.lastValues())).isEqualTo(Parsed.of("a-3", 1250));
        assertThat(keyed.value()).isEqualTo(value);

        // the handbook's shape: the identity in the key AND the value, which its consumer reads: both carry the copy's
        SourceMapping.Raw handbook = new SourceMapping.Raw("p-17".getBytes(StandardCharsets.UTF_8),
                "{\"paymentId\":\"p-17\",\"amountCents\":17,\"note\":\"p-170\"}".getBytes(StandardCharsets.UTF_8), null);
        SourceMapping.Raw copied = SourceMapping.of("key", "json:/amountCents", 0).withId(handbook, "a-5");
        assertThat(new String(copied.key(), StandardCharsets.UTF_8)).isEqualTo("a-5");
        assertThat(new String(copied.value(), StandardCharsets.UTF_8)).isEqualTo("{\"paymentId\":\"a-5\",\"amountCents\":17,\"note\":\"p-170\"}");

        SourceMapping byHeader = SourceMapping.of("header:msg-id", "json:/payment/amountCents", 0);
        SourceMapping.Raw headed = byHeader.withId(r, "a-4");
        assertThat(byHeader.parser().parse(headed.key(), headed.value(), headed.lastValues())).isEqualTo(Parsed.of("a-4", 1250));
        assertThat(headed.headers().lastHeader("trace").value()).isEqualTo("t".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(headers.lastHeader("msg-id").value(), StandardCharsets.UTF_8)).as("the original is left as it was").isEqualTo("h-1");

        assertThatThrownBy(() -> SourceMapping.of("json:/paymentId", "json:/payment/amountCents", 0).withId(r, "x"))
                .hasMessageStartingWith("the record has no identity to replace: ");
        assertThatThrownBy(() -> nested.withId(new SourceMapping.Raw(null, "not json".getBytes(StandardCharsets.UTF_8), null), "x"))
                .hasMessageStartingWith("the record has no identity to replace: ");
        assertThatThrownBy(() -> byKey.withId(new SourceMapping.Raw(null, value, null), "x")).hasMessageStartingWith("the record has no identity to replace: ");
        assertThatThrownBy(() -> SourceMapping.of("header:other", "key", 0).withId(r, "x")).hasMessageStartingWith("the record has no identity to replace: ");
    }
}
