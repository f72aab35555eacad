package io.cyclium.output;

/**
 * What routing (or retrying) an output did.
 *
 * <p>{@link Kind#DUPLICATE}: the dedupe key was already taken, nothing was delivered now; status,
 * ref and error are the existing output's ({@code proposed} while another node is delivering it).
 *
 * @param ref   the adapter's reference to what it delivered (null unless delivered)
 * @param error why delivery failed (null unless failed)
 */
public record OutputOutcome(Kind kind, String outputId, String dedupeKey, String status, String ref, String error) {

    public enum Kind {
        DELIVERED, FAILED, DUPLICATE
    }
}
