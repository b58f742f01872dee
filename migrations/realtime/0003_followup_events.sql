-- The follow-up queue reaches the dashboards (plugins/realtime/README.md, "Events"): a follow-up scheduled,
-- and every change of its status or due time, to its conversation's room and its cluster's.
CREATE TRIGGER messaging_follow_ups_realtime_insert
  AFTER INSERT ON messaging_follow_ups
  FOR EACH ROW EXECUTE FUNCTION notify_followup_event();
CREATE TRIGGER messaging_follow_ups_realtime_update
  AFTER UPDATE OF status, due_at ON messaging_follow_ups
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.due_at IS DISTINCT FROM NEW.due_at)
  EXECUTE FUNCTION notify_followup_event();
