import threading, time
def all_reduce(tensor, group=None):
    # stands in for torch.distributed.all_reduce blocked in work.wait()
    ev = threading.Event()
    ev.wait()
def train_step(step):
    all_reduce([1.0])
def worker():
    while True:
        time.sleep(1)
t = threading.Thread(target=worker, name="pt_data_loader", daemon=True); t.start()
for step in range(10**9):
    train_step(step)
