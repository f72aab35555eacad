package io.cyclium.output;

import io.cyclium.keys.DedupeKeys;
import io.cyclium.keys.CanonicalJson;
import io.cyclium.keys.EpisodeRef;
import java.util.Objects;

/**
 * The dedupe key an output is delivered under; the unique index on it is the exactly-once gate.
 *
 * <ul>
 *   <li>An explicit {@link OutputProposal#dedupeKey()} wins. It may span episodes (one alert per
 *       hour, say), so the node's env is appended ({@code key:env}; an unset env leaves it as
 *       is), and environments sharing a database never suppress each other's outputs.
 *   <li>A logical {@link OutputProposal#key()} is scoped to the episode:
 *       {@code out:} + hex SHA-256 of {@code <episode dedupe key, or its id when it has none>|<type>|<key>}.
 *       A restarted or stolen episode keeps its id and dedupe key, so it derives the same key and
 *       cannot deliver twice. The episode's dedupe key already carries the env.
 *   <li>With neither, the logical key is {@code payload-sha256:} + the SHA-256 of the payload's
 *       canonical JSON: the same payload from the same episode and type is delivered once, a
 *       different one is a different output. (A logical key spelled that way means the same.)
 * </ul>
 */
public final class OutputKeys {

    public static final String DERIVED_PREFIX = "out:";
    static final String PAYLOAD_KEY_PREFIX = "payload-sha256:";

    private OutputKeys() {
    }

    /** The dedupe key for a proposal of {@code episode} on a node in {@code nodeEnv} (null: unset). */
    public static String effective(OutputProposal proposal, EpisodeRef episode, String nodeEnv) {
        Objects.requireNonNull(proposal, "proposal");
        if (hasText(proposal.dedupeKey())) {
            if (proposal.dedupeKey().length() > DedupeKeys.MAX_LENGTH) {
                throw new IllegalArgumentException("output dedupe key is " + proposal.dedupeKey().length()
                        + " characters, more than the " + DedupeKeys.MAX_LENGTH + " the database allows");
            }
            return DedupeKeys.withEnv(proposal.dedupeKey(), nodeEnv);
        }
        String key = hasText(proposal.key()) ? proposal.key()
                : PAYLOAD_KEY_PREFIX + CanonicalJson.hash(proposal.payload());
        return derived(episode, proposal.type(), key);
    }

    /** {@code out:} + hex SHA-256 of {@code <episode dedupe key or id>|<type>|<key>}. */
    public static String derived(EpisodeRef episode, String type, String key) {
        Objects.requireNonNull(episode, "an output key is derived from its episode");
        String scope = hasText(episode.dedupeKey()) ? episode.dedupeKey() : episode.id();
        return DERIVED_PREFIX + CanonicalJson.sha256Hex(scope + "|" + type + "|" + key);
    }

    private static boolean hasText(String s) {
        return s != null && !s.isBlank();
    }
}
