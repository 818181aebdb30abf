# gpu_tag.sh, sourced by the recording scripts: gpu_model prints the short
# name of GPU 0's model as recorded runs are named after it ("h100",
# "h200", "a100", "b200", "gb200", "l40s"; "gpu" when nvidia-smi's name
# has none of these forms), and gpu_tag N the name of a run on N of them
# ("h100x2").
gpu_model() {
	local name
	name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null | head -1)
	name=$(echo "$name" | grep -oiE '\b(GB|[ABHL])[0-9]{2,3}S?\b' | head -1 | tr '[:upper:]' '[:lower:]')
	echo "${name:-gpu}"
}
gpu_tag() { echo "$(gpu_model)x$1"; }
