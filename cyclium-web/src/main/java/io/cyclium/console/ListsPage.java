package io.cyclium.console;

import io.cyclium.finding.FindingRepository;
import io.cyclium.finding.FindingView;
import io.cyclium.finding.Findings;
import io.cyclium.schema.SchemaMigrator;
import io.cyclium.store.Tx;
import io.cyclium.trigger.TriggerRequestStore;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/**
 * Backs findings.xhtml and trigger-requests.xhtml: newest first, a status filter (a view
 * parameter, {@code ?status=}, so each filter has its own URL), at most {@link #ROWS} rows.
 */
@Named("lists")
@ViewScoped
public class ListsPage implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    static final int ROWS = 200;

    @Inject
    Findings findings;

    @Inject
    Tx tx;

    @Inject
    SchemaMigrator schema;

    private String findingStatus = "active";
    private String requestStatus;

    public List<FindingView> getFindings() {
        // Set.of(...).contains(null) throws: check for null first
        String status = findingStatus != null && FindingRepository.STATUSES.contains(findingStatus) ? findingStatus : "active";
        return findings.list(status, null, null, true, ROWS);
    }

    public List<String> getFindingStatuses() {
        return List.copyOf(new java.util.TreeSet<>(FindingRepository.STATUSES));
    }

    public List<TriggerRequestStore.Request> getTriggerRequests() {
        String status = requestStatus != null && io.cyclium.api.TriggerRequestResource.STATUSES.contains(requestStatus) ? requestStatus : null;
        TriggerRequestStore store = new TriggerRequestStore(schema.vendor());
        return tx.inNewTransaction(em -> store.recent(em, status, ROWS));
    }

    public List<String> getRequestStatuses() {
        return List.copyOf(new java.util.TreeSet<>(io.cyclium.api.TriggerRequestResource.STATUSES));
    }

    /** The finding status shown (active when none or an unknown one is asked for). */
    public String getShownFindingStatus() {
        return findingStatus != null && FindingRepository.STATUSES.contains(findingStatus) ? findingStatus : "active";
    }

    public String getFindingStatus() {
        return findingStatus;
    }

    public void setFindingStatus(String findingStatus) {
        this.findingStatus = findingStatus;
    }

    public String getRequestStatus() {
        return requestStatus;
    }

    public void setRequestStatus(String requestStatus) {
        this.requestStatus = requestStatus;
    }
}
