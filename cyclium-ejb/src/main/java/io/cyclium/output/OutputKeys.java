package io.cyclium.output;

import io.cyclium.keys.DedupeKeys;
import io.cyclium.keys.CanonicalJson;
import io.cyclium.keys.EpisodeRef;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The dedupe key an output is delivered under; the unique index on it is the exactly-once gate.
 *
 * <ul>
 *   <li>An explicit {@link OutputProposal#dedupeKey()} wins. It may span episodes (one alert per
 *       hour, say), so the node's env is appended ({@code key:env}; an unset env leaves it as
 *       is), and environments sharing a database never suppress each other's outputs.
 *   <li>A logical {@link OutputProposal#key()} is scoped to the <em>work</em>:
 *       {@code out:} + hex SHA-256 of {@code <work scope>|<type>|<key>}, where the work scope is the
 *       episode's dedupe key (or its id when it has none) — except for attempts of one piece of work:
 *       a workflow step's attempts ({@code workflow:<instance>:<step>:<n>}) share
 *       {@code workflow:<instance>:<step>}, and a plain episode's retries ({@code retry:<first id>:<n>})
 *       share the scope of the chain's first episode. A restarted or stolen episode keeps its id and
 *       dedupe key, and a retry of the same work derives the same key, so neither delivers twice.
 *       The episode's dedupe key already carries the env.
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
        return effective(proposal, episode, nodeEnv, firstId -> Optional.empty());
    }

    /**
     * As {@link #effective(OutputProposal, EpisodeRef, String)}; {@code firstScope} answers a retry
     * chain's first episode's scope (its dedupe key, or its id) from the episode's id, when it is
     * still stored.
     */
    public static String effective(OutputProposal proposal, EpisodeRef episode, String nodeEnv,
            Function<String, Optional<String>> firstScope) {
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
        return DERIVED_PREFIX + CanonicalJson.sha256Hex(workScope(episode, firstScope) + "|" + proposal.type() + "|" + key);
    }

    private static final Pattern WORKFLOW_ATTEMPT = Pattern.compile("^(workflow:.+):\\d+$");
    private static final Pattern RETRY_ATTEMPT = Pattern.compile("^retry:([^:]+):\\d+$");

    /** What a derived key is scoped to: the work the episode does, the same across its attempts. */
    static String workScope(EpisodeRef episode, Function<String, Optional<String>> firstScope) {
        Objects.requireNonNull(episode, "an output key is derived from its episode");
        if (!hasText(episode.dedupeKey())) {
            return episode.id();
        }
        Matcher workflow = WORKFLOW_ATTEMPT.matcher(episode.dedupeKey());
        if (workflow.matches()) {
            return workflow.group(1);
        }
        Matcher retry = RETRY_ATTEMPT.matcher(episode.dedupeKey());
        if (retry.matches()) {
            String first = retry.group(1);
            // the first attempt's own scope; "retry:<first id>" when that episode is purged
            return firstScope.apply(first).orElse("retry:" + first);
        }
        return episode.dedupeKey();
    }

    /** {@code out:} + hex SHA-256 of {@code <episode dedupe key or id>|<type>|<key>} (the scope as it was before attempts shared it). */
    public static String derived(EpisodeRef episode, String type, String key) {
        Objects.requireNonNull(episode, "an output key is derived from its episode");
        String scope = hasText(episode.dedupeKey()) ? episode.dedupeKey() : episode.id();
        return DERIVED_PREFIX + CanonicalJson.sha256Hex(scope + "|" + type + "|" + key);
    }

    private static boolean hasText(String s) {
        return s != null && !s.isBlank();
    }
}
