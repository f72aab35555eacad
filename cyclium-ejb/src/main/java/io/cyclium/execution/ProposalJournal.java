package io.cyclium.execution;

import io.cyclium.output.OutputProposal;
import io.cyclium.store.JsonText;
import io.cyclium.store.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * An {@code output_proposed} journal row holds the whole proposal (type, key, explicit dedupe key,
 * payload), so a run that resumes the episode on any node delivers what earlier runs proposed.
 * Rows written before the payload was kept, or truncated by the journal's size cap, cannot be
 * read back as proposals: they are skipped and said so.
 */
final class ProposalJournal {

    private static final Logger LOG = Logger.getLogger(ProposalJournal.class.getName());

    private ProposalJournal() {
    }

    static JsonObject detail(OutputProposal p) {
        return Jsons.object()
                .add("type", p.type())
                .add("key", String.valueOf(p.key()))
                .add("dedupeKey", p.dedupeKey() == null ? JsonValue.NULL : Jsons.value(p.dedupeKey()))
                .add("payload", p.payload())
                .build();
    }

    static Optional<OutputProposal> proposal(String detail) {
        JsonObject d = JsonText.parseObject(detail);
        if (!d.containsKey("payload") || d.get("payload").getValueType() != JsonValue.ValueType.OBJECT || !d.containsKey("type")) {
            LOG.warning(() -> "An output proposal in the journal cannot be read back (written without its payload, or"
                    + " truncated): " + (detail == null ? "" : detail.substring(0, Math.min(200, detail.length()))));
            return Optional.empty();
        }
        String key = d.getString("key", null);
        String dedupeKey = d.get("dedupeKey") == null || d.isNull("dedupeKey") ? null : d.getString("dedupeKey");
        return Optional.of(new OutputProposal(d.getString("type"), "null".equals(key) ? null : key, dedupeKey,
                d.getJsonObject("payload")));
    }
}
