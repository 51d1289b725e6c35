package store

import "github.com/nexus-tui/nexus/core"

// A schedule (core.Schedule) in the event payload ("sd") and the
// snapshot body ("schedules", left out when there is none); its mission
// template is a core.Mission (codec_mission.go). Field order and names
// follow the msgpack tags, as everywhere in this codec: keep them in
// step (TestCodecCoversFields fails when they are not).

func encSchedule(e *enc, v *core.Schedule) {
	if v == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", v.ID)
	o.str("sp", v.Spec)
	o.strOmit("th", v.Thread)
	if v.Mission != nil {
		o.key("mi")
		encMission(e, v.Mission)
	}
	o.str("tx", v.Text)
	o.int("nx", v.NextAt)
	o.intOmit("la", v.LastAt)
	o.int("n", int64(v.Fires))
	o.intOmit("ms", int64(v.Missed))
	o.intOmit("sk", int64(v.Skipped))
	o.strOmit("lr", v.LastRun)
	o.strOmit("lm", v.LastMission)
	o.strOmit("er", v.Error)
	o.boolOmit("rm", v.Removed)
	o.int("ct", v.CreatedAt)
	o.int("ut", v.UpdatedAt)
	o.end()
}

func decSchedule(r *reader) *core.Schedule {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Schedule)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "sp":
			v.Spec = r.str()
		case "th":
			v.Thread = r.str()
		case "mi":
			v.Mission = decMission(r)
		case "tx":
			v.Text = r.str()
		case "nx":
			v.NextAt = r.int()
		case "la":
			v.LastAt = r.int()
		case "n":
			v.Fires = int(r.int())
		case "ms":
			v.Missed = int(r.int())
		case "sk":
			v.Skipped = int(r.int())
		case "lr":
			v.LastRun = r.str()
		case "lm":
			v.LastMission = r.str()
		case "er":
			v.Error = r.str()
		case "rm":
			v.Removed = r.bool()
		case "ct":
			v.CreatedAt = r.int()
		case "ut":
			v.UpdatedAt = r.int()
		default:
			r.skip()
		}
	}
	return v
}
