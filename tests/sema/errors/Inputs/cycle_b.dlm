import ./cycle_a  # expected-error {{import cycle: cycle_a.dlm -> cycle_b.dlm -> cycle_a.dlm}}

def g(x):
    return x
